export * from './constants';
export * from './schema';
export * from './hostname';
export * from './classify/index';
export * from './probe';
export * from './plausibility';
export * from './probe-crypto';
