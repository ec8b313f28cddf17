import { join } from 'node:path';
import { readSettings, type Settings } from '../../app/settings.ts';

/**
 * Settings of a whole system in sandbox mode for a test: a free port on loopback, its data
 * under `dir`, no log lines, and the sandbox's pace (SANDBOX_TIME_SCALE: 1 keeps a real
 * repository's durations, for a virtual clock; higher shortens them on the wall clock).
 */
export function sandboxSystemSettings(dir: string, timeScale: number): Settings {
  return readSettings({
    PORT: '0',
    HOST: '127.0.0.1',
    TRAINYARD_DATA_DIR: join(dir, 'db'),
    LOG_LEVEL: 'silent',
    SANDBOX_TIME_SCALE: String(timeScale),
  });
}
