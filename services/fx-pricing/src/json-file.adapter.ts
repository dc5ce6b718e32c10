import { readFileSync } from 'node:fs';

/** A JSON file named in the configuration (seed, rate table, geolocation ranges), read once at boot. */
export function readJsonFile(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}
