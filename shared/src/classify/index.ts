export * from './timing';
export * from './classify';
