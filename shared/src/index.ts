export * from './constants';
export * from './schema';
export * from './classify/index';
