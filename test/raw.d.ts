// Vite imports a file as text with `?raw` (test/docs/client.test.ts).
declare module "*?raw" {
  const text: string;
  export default text;
}
