// The built console's folder, for servers that serve it (`tickwheel start` passes it as `consoleDir`).
import { fileURLToPath } from 'node:url';

export const consoleDir = fileURLToPath(new URL('./dist/', import.meta.url));
