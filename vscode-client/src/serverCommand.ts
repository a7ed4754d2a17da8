/**
 * Which program starts the language server: the `fourfold.server.command` setting, else `fourfold`
 * on PATH, else the Python extension's interpreter with `-m fourfold.lsp`. When none works the user
 * gets a sentence saying what was tried and what to set, instead of a stack trace. Pure, unit-tested.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where the command came from, for the log and error messages. */
  source: 'setting' | 'PATH' | 'Python extension';
}

export type Resolution = { ok: true; server: ServerCommand } | { ok: false; problem: string };

export interface Environment {
  /** The PATH the server would be started with. */
  pathVariable: string | undefined;
  isExecutable: (file: string) => boolean;
  /** The Python extension's selected interpreter command (may be several words, e.g. `conda run`). */
  pythonInterpreter: string[] | undefined;
  platform?: NodeJS.Platform;
}

export const SERVER_PROGRAM = 'fourfold';
export const SERVE_ARGS = ['serve'];
export const PYTHON_MODULE_ARGS = ['-m', 'fourfold.lsp'];

/** The first executable `name` in PATH (with Windows extensions), or undefined. */
export function findOnPath(name: string, env: Environment): string | undefined {
  const windows = (env.platform ?? process.platform) === 'win32';
  const extensions = windows ? ['.exe', '.cmd', '.bat', ''] : [''];
  const delimiter = windows ? ';' : ':';
  for (const folder of (env.pathVariable ?? '').split(delimiter)) {
    if (!folder) {
      continue;
    }
    for (const extension of extensions) {
      const candidate = path.join(folder, name + extension);
      if (env.isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

function fromSetting(setting: unknown): string[] | undefined {
  if (typeof setting === 'string' && setting.trim()) {
    return [setting.trim(), ...SERVE_ARGS];
  }
  if (Array.isArray(setting) && setting.length > 0 && setting.every((item) => typeof item === 'string') && setting[0]) {
    return setting;
  }
  return undefined;
}

function located(program: string, env: Environment): string | undefined {
  const hasFolder = program.includes('/') || program.includes('\\');
  if (hasFolder) {
    return env.isExecutable(program) ? program : undefined;
  }
  return findOnPath(program, env);
}

/** The command line to start the server with, or the problem to show the user. */
export function resolveServerCommand(setting: unknown, env: Environment): Resolution {
  const configured = fromSetting(setting);
  if (configured) {
    const [program, ...args] = configured;
    const found = located(program, env);
    if (!found) {
      return {
        ok: false,
        problem: `the server command "${program}" from fourfold.server.command was not found or is not executable.`,
      };
    }
    return { ok: true, server: { command: found, args, source: 'setting' } };
  }
  const onPath = findOnPath(SERVER_PROGRAM, env);
  if (onPath) {
    return { ok: true, server: { command: onPath, args: [...SERVE_ARGS], source: 'PATH' } };
  }
  const python = env.pythonInterpreter?.filter((word) => word.length > 0);
  if (python && python.length > 0) {
    const [command, ...rest] = python;
    return { ok: true, server: { command, args: [...rest, ...PYTHON_MODULE_ARGS], source: 'Python extension' } };
  }
  return {
    ok: false,
    problem: `"${SERVER_PROGRAM}" is not on PATH and no Python interpreter is selected. Install it (pip install fourfold) or set fourfold.server.command.`,
  };
}

/** The command line as a person would type it, for messages and the log. */
export function describe(server: ServerCommand): string {
  return [server.command, ...server.args].map((word) => (/\s/.test(word) ? `"${word}"` : word)).join(' ');
}

/** An existing regular file this process may execute (the check the extension runs on candidates). */
export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
