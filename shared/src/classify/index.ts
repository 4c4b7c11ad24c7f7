export * from './timing';
export * from './classify';
export * from './server-timing';
