import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import pretty from 'pino-pretty';

/** `json`: one JSON object per line (for log collectors); `pretty`: one readable line per entry. */
export type LogFormat = 'json' | 'pretty';

/** What is never logged: credentials in request headers and in logged objects. */
const redact = ['req.headers.authorization', '*.privateKey', '*.token'];

/**
 * LOG_FORMAT when it is set; otherwise readable lines for a person at a terminal and JSON for
 * everything else (a pipe, a file, a process manager's log collector).
 */
export function chooseLogFormat(setting: LogFormat | undefined, stdoutIsTerminal: boolean): LogFormat {
  return setting ?? (stdoutIsTerminal ? 'pretty' : 'json');
}

export interface LoggerOptions {
  level: Level | 'silent';
  format: LogFormat;
  /** Where lines go (default: standard output). */
  destination?: DestinationStream | NodeJS.WritableStream;
  /** Colours in the readable format (default: when standard output is a terminal that has them). */
  colorize?: boolean;
}

/**
 * The server's logger (pino). The readable format is formatted in this thread and written
 * synchronously, so its lines and the welcome banner (written to standard output directly) come
 * out in the order they were made, and nothing is lost when the process exits.
 */
export function createLogger(options: LoggerOptions): Logger {
  const settings = { level: options.level, redact };
  if (options.format === 'json')
    return options.destination ? pino(settings, options.destination as DestinationStream) : pino(settings);
  const stream = pretty({
    colorize: options.colorize ?? (process.stdout.isTTY === true && process.stdout.hasColors?.() === true),
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    // Fields after the message on the same line: an entry is one line (an error's stack excepted).
    singleLine: true,
    sync: true,
    ...(options.destination ? { destination: options.destination } : {}),
  });
  return pino(settings, stream);
}
