/**
 * The extension's `fourfold.*` settings translated into exactly the names the server understands
 * (it warns about unknown ones), with the Voyage key from SecretStorage added and workspace trust
 * applied: an untrusted workspace never gets the remote backend or the key. Pure, unit-tested.
 */

/** Extension setting (below `fourfold.`) → server setting name. Only these reach the server. */
export const SERVER_SETTING_NAMES: Readonly<Record<string, string>> = {
  preset: 'preset',
  'semantic.backend': 'semanticBackend',
  exclude: 'exclude',
  maxFileSize: 'maxFileSize',
  indexDir: 'indexDir',
  demoteFactor: 'demoteFactor',
  textCacheMb: 'textCacheMb',
  parentIgnoreFiles: 'parentIgnoreFiles',
};

/** Backend used instead of `voyage` in an untrusted workspace: code stays on this machine. */
export const UNTRUSTED_BACKEND = 'local';

export type ServerSettings = Record<string, unknown>;

export interface SettingsContext {
  trusted: boolean;
  apiKey: string | undefined;
}

export interface MappedSettings {
  settings: ServerSettings;
  /** Things the user should be told once (e.g. the remote backend is off because of trust). */
  notes: string[];
}

/** The `fourfold` section for `initializationOptions` and `workspace/configuration` answers. */
export function serverSettings(get: (name: string) => unknown, context: SettingsContext): MappedSettings {
  const settings: ServerSettings = {};
  const notes: string[] = [];
  for (const [name, serverName] of Object.entries(SERVER_SETTING_NAMES)) {
    const value = get(name);
    // An empty index folder means "the default": the server wants it absent, not "".
    if (value === undefined || value === null || value === '') {
      continue;
    }
    settings[serverName] = value;
  }
  if (settings.semanticBackend === 'voyage') {
    if (!context.trusted) {
      settings.semanticBackend = UNTRUSTED_BACKEND;
      notes.push('This workspace is not trusted, so Fourfold does not use the Voyage backend: semantic search stays local and no code leaves this machine. Trust the workspace to use Voyage.');
    } else if (context.apiKey) {
      settings.voyageApiKey = context.apiKey;
    } else {
      notes.push('fourfold.semantic.backend is "voyage" but no API key is set: run "Fourfold: Set Voyage API Key" (or set VOYAGE_API_KEY for the server).');
    }
  }
  return { settings, notes };
}

/** True when a configuration change touches a setting the server reads. */
export function affectsServer(affects: (section: string) => boolean): boolean {
  return Object.keys(SERVER_SETTING_NAMES).some((name) => affects(`fourfold.${name}`));
}
