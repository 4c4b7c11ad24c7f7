-- Read tokens: a site's owner reads that site's data with it. Only the SHA-256 of the token is stored
-- (hex); registering a site again issues a new token and the old one stops working.
ALTER TABLE sites ADD COLUMN IF NOT EXISTS tokenHash String DEFAULT '';
