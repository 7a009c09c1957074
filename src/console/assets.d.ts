// The console page's script and style, imported as text (Bun's `with { type: "text" }`): see page.ts.
declare module "*.page.js" {
  const text: string;
  export default text;
}
declare module "*.page.css" {
  const text: string;
  export default text;
}
