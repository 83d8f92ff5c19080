// hono-openapi's schema converters load the converter of whichever schema
// library they are handed, by dynamic import. This gateway hands them valibot
// only, but zod is in node_modules (a test tool depends on it), so the bundler
// would pack all of it (700 KiB) into the Worker. wrangler.toml aliases the
// zod entry point those converters import to this empty module instead.
export {};
