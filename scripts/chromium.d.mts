import type { Browser } from 'playwright-core';

export declare const CHROMIUM_ARGS: readonly string[];
export declare function chromiumPath(): string;
export declare function launchChromium(): Promise<Browser>;
