/** The query catalogue and the names of the answers' enumerations: plain data, safe in a page. */
export * from './catalogue';
export * from './answers';
export * from './range';
