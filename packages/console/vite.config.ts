import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';

// `npm run dev -w @tickwheel/console` serves the console with hot reload and sends the API to a
// server started with `tickwheel start` (TICKWHEEL_URL, default http://127.0.0.1:8080).
const apiTarget = process.env.TICKWHEEL_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  // Brotli and gzip copies beside each asset: the server sends them to browsers that accept them.
  plugins: [react(), compression({ algorithms: ['gzip', 'brotliCompress'], threshold: 0 })],
  server: { host: '127.0.0.1', proxy: { '/api': apiTarget } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // @tickwheel/protocol's modules only declare things, but its package does not say so: without
      // this, the workflow pages' one import of it (the graph check) would carry every zod schema of
      // the wire protocol along.
      treeshake: { moduleSideEffects: (id) => !id.includes('/packages/protocol/') },
      output: {
        // Long-lived vendor chunks: an app change does not make browsers fetch React or antd again.
        manualChunks(id) {
          if (!id.includes('node_modules')) return undefined;
          // Babel's helpers serve antd and CodeMirror alike: left unassigned, Rollup would put them in
          // the codemirror chunk and make the first page load it.
          if (/node_modules\/@babel\/runtime\//.test(id)) return 'react';
          if (/node_modules\/(echarts|zrender)\//.test(id)) return 'echarts';
          if (/node_modules\/(@codemirror|@lezer|@uiw|codemirror|crelt|style-mod|w3c-keyname)\//.test(id)) {
            return 'codemirror';
          }
          if (/node_modules\/(react|react-dom|scheduler|react-router|react-router-dom)\//.test(id))
            return 'react';
          return undefined;
        },
      },
    },
  },
});
