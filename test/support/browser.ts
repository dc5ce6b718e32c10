import type { AddressInfo } from 'node:net';
import * as httpServer from 'node:http';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's headless Chromium (installed by scripts/test-prerequisites.sh), driven by playwright-core. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/**
 * A partner's site on 127.0.0.1 (where hosted pages send people back) that records every visited
 * path and answers a small page whose `<h1 id=…>` text `heading(url)` chooses.
 */
export async function recordingSite(title: string, headingId: string, heading: (url: string) => string) {
  const visits: string[] = [];
  const server = httpServer.createServer((req, res) => {
    visits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>${title}</title><h1 id="${headingId}">${heading(req.url ?? '')}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    visits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
