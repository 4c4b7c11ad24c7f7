export * from './der';
export * from './leaf-key';
