// Vite's `?raw` imports and import.meta.glob, as the docs tests use them
// (the project does not load vite/client's types, which would also declare
// asset modules that worker-configuration.d.ts declares for wrangler).
declare module "*.md?raw" {
  const text: string;
  export default text;
}

interface ImportMeta {
  glob(patterns: string | string[], options?: { query?: string; import?: string; eager?: boolean }): Record<string, unknown>;
}
