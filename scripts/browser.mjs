/**
 * A headless Chromium for the catalogue's browser tests and scripts. The browser comes from the npm package
 * `@sparticuz/chromium` (a Chromium build shipped inside the package and unpacked to the temporary directory on first
 * use), so `npm ci && npm test` needs nothing else on a fresh machine; `CV_CHROMIUM=/usr/bin/chromium` uses another
 * one. The package's own launch arguments are for serverless hosts (single process, software GL) and crash here.
 */
import chromium from '@sparticuz/chromium';
import { chromium as playwright } from 'playwright-core';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** @returns {Promise<import('playwright-core').Browser>} */
export async function launchBrowser() {
  const executablePath = process.env.CV_CHROMIUM || (await chromium.executablePath());
  return playwright.launch({ executablePath, headless: true, args: ARGS });
}
