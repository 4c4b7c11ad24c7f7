/** V8's explicit compile hint for a whole file: compile every function as the file streams in (vite.config.ts). */
export const COMPILE_HINT = '//# allFunctionsCalledOnLoad';
