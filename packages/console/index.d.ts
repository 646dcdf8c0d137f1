/** The built console's folder (holds index.html once `npm run build` ran). */
export declare const consoleDir: string;
