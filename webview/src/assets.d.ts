/** esbuild bundles imported CSS into inspector.css beside the script. */
declare module '*.css';
