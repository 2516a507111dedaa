import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// One build for every environment: the Node entries (Electron main, browser-mode server, CLI and the
// device client) share the host core; the preload is CommonJS because sandboxed preloads cannot be ESM.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          electron: resolve('src-main/electron/main.ts'),
          web: resolve('src-main/web/main.ts'),
          cli: resolve('src-main/cli/main.ts'),
          device: resolve('src-main/device/main.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { preload: resolve('src-main/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: resolve('src-renderer/index.html') },
    },
  },
});
