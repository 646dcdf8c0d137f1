/** tickwheel — the command line; `main(argv)` runs it as the `tickwheel` binary does. */
export { main } from './main.js';
