/** The report page's assets, which the code reads next to itself. */
export declare const ASSETS: readonly string[];
/** Bundles the CLI from `entry` (a path) into `outdir` (a path two folders below the checkout), assets included. */
export declare function bundleCli(entry: string, outdir: string): Promise<void>;
