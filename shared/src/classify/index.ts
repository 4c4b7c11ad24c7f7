export * from './timing';
export * from './classify';
export * from './server-timing';
export * from './entries';
export * from './record-fields';
export * from './site-profile';
export * from './entry-tuple';
