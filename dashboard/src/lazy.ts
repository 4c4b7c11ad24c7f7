/**
 * A chunk of the dashboard loaded on demand (`import('./…')`), asked for once and shared. A failed fetch is
 * forgotten, so the next call asks again instead of failing until the page is reloaded; and since browsers
 * remember a failed module fetch for the page's life, that second try asks for the same file under another URL.
 */
export function importAgainOnFailure<M>(load: () => Promise<M>): () => Promise<M> {
  let module: Promise<M> | null = null;
  return () =>
    (module ??= load()
      .catch((err: unknown) => {
        const url = /https?:\/\/\S+?\.js/.exec(err instanceof Error ? err.message : '')?.[0];
        if (!url) throw err;
        return import(/* @vite-ignore */ `${url}?retry=${Date.now()}`) as Promise<M>;
      })
      .catch((err: unknown) => {
        module = null;
        throw err;
      }));
}
