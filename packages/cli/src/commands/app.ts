/**
 * `tickwheel app list|get|add|rm|rotate-token`: apps (XXL-JOB's executor groups) over the REST
 * API. An app is named by id or by appName. `add` and `rotate-token` print the app's executor
 * token once (the server never answers it again), or write it to a new owner-only file.
 */
import { type FileHandle, open, unlink } from 'node:fs/promises';
import type { Command } from 'commander';
import { type App, type AppWithToken, call } from '../api-client.js';
import { resolveApp } from '../app-ref.js';
import { collectUrls, parseWholeNumber } from '../flag-parsers.js';
import { formatTime, printJson, printPageFooter, printRecord, printTable } from '../output.js';
import { action, CliFailure, clientOf, restFlags, withServerOptions } from '../rest-command.js';

interface ListFlags {
  name?: string;
  limit?: number;
  offset?: number;
}

interface AddFlags {
  title?: string;
  address?: string[];
  installationToken?: boolean;
  tokenFile?: string;
}

interface RotateFlags {
  overlap: number;
  tokenFile?: string;
}

/** How long `rotate-token` keeps the replaced token by default: 24 hours, as the server does. */
const DEFAULT_OVERLAP_MINUTES = 24 * 60;

export function registerAppCommand(program: Command): void {
  const app = withServerOptions(
    program.command('app').description('list, show, create and delete apps (executor groups)'),
  );

  app
    .command('list')
    .description('list apps with their online executors')
    .option('--name <text>', 'only apps whose appName contains the text')
    .option('--limit <n>', 'at most this many (default 50, at most 200)', parseWholeNumber)
    .option('--offset <n>', 'skip this many', parseWholeNumber)
    .action(
      action(async (flags: ListFlags, command: Command) => {
        const page = await call(
          clientOf(command).GET('/api/v1/apps', {
            params: { query: { appName: flags.name, limit: flags.limit, offset: flags.offset } },
          }),
        );
        if (restFlags(command).json) return printJson(page);
        printTable(
          ['ID', 'APP NAME', 'TITLE', 'ADDRESSES', 'ONLINE', 'TOKEN'],
          page.items.map((item) => [
            item.id,
            item.appName,
            item.title,
            item.addressType === 'MANUAL' ? item.addressList.join(',') : 'AUTO',
            item.onlineAddresses.length,
            item.credential ?? '-',
          ]),
        );
        printPageFooter(page);
      }),
    );

  app
    .command('get')
    .description('show one app')
    .argument('<app>', 'app id or appName')
    .action(
      action(async (ref: string, _flags: unknown, command: Command) => {
        const found = await resolveApp(clientOf(command), ref);
        if (restFlags(command).json) return printJson(found);
        printApp(found);
      }),
    );

  app
    .command('add')
    .description(
      'create an app (admins); with --address it is MANUAL, otherwise executors register themselves',
    )
    .argument('<appName>', 'the name executors register with')
    .option('--title <title>', 'a title for people (default: the appName)')
    .option('--address <url>', 'an executor address (repeat, or separate with commas)', collectUrls)
    .option(
      '--installation-token',
      "compatibility mode: the app's executors use the installation-wide token, not one of its own",
    )
    .option(
      '--token-file <file>',
      "write the app's executor token to this new file (mode 0600) instead of printing it",
    )
    .action(
      action(async (appName: string, flags: AddFlags, command: Command) => {
        const addresses = flags.address ?? [];
        const created = await withTokenFile(flags.tokenFile, () =>
          call(
            clientOf(command).POST('/api/v1/apps', {
              body: {
                appName,
                title: flags.title ?? appName,
                ...(addresses.length > 0 ? { addressType: 'MANUAL' as const, addressList: addresses } : {}),
                ...(flags.installationToken ? { useInstallationToken: true } : {}),
              },
            }),
          ),
        );
        const shown = withoutTokenIfKept(created, flags.tokenFile);
        if (restFlags(command).json) return printJson(shown);
        console.log(`created app ${created.id} (${created.appName})`);
        printTokenNotice(created, flags.tokenFile);
      }),
    );

  app
    .command('rotate-token')
    .description('give an app a new executor token (admins); the old one stays valid for --overlap minutes')
    .argument('<app>', 'app id or appName')
    .option(
      '--overlap <minutes>',
      `how long the replaced token stays valid while executors move over, 0 revokes it now (default ${DEFAULT_OVERLAP_MINUTES})`,
      parseWholeNumber,
      DEFAULT_OVERLAP_MINUTES,
    )
    .option('--token-file <file>', 'write the new token to this new file (mode 0600) instead of printing it')
    .action(
      action(async (ref: string, flags: RotateFlags, command: Command) => {
        const client = clientOf(command);
        const found = await resolveApp(client, ref);
        const rotated = await withTokenFile(flags.tokenFile, () =>
          call(
            client.POST('/api/v1/apps/{id}/rotate-token', {
              params: { path: { id: found.id } },
              body: { previousTokenValidUntil: Date.now() + flags.overlap * 60_000 },
            }),
          ),
        );
        const shown = withoutTokenIfKept(rotated, flags.tokenFile);
        if (restFlags(command).json) return printJson(shown);
        console.log(
          flags.overlap > 0
            ? `rotated the executor token of app ${rotated.id} (${rotated.appName}); the previous one is valid until ${formatTime(rotated.previousTokenValidUntil ?? Date.now())}`
            : `rotated the executor token of app ${rotated.id} (${rotated.appName}); the previous one no longer works`,
        );
        printTokenNotice(rotated, flags.tokenFile);
      }),
    );

  app
    .command('rm')
    .description('delete an app that no job uses (admins)')
    .argument('<app>', 'app id or appName')
    .action(
      action(async (ref: string, _flags: unknown, command: Command) => {
        const client = clientOf(command);
        const found = await resolveApp(client, ref);
        await call(client.DELETE('/api/v1/apps/{id}', { params: { path: { id: found.id } } }));
        if (restFlags(command).json) return printJson({ deleted: found.id });
        console.log(`deleted app ${found.id} (${found.appName})`);
      }),
    );
}

function printApp(app: App): void {
  printRecord([
    ['id', app.id],
    ['appName', app.appName],
    ['title', app.title],
    ['addressType', app.addressType],
    ['addressList', app.addressList.join(', ') || '-'],
    ['online', app.onlineAddresses.join(', ') || '(none)'],
    ['token', credentialText(app)],
    ['created', formatTime(app.createdAt)],
    ['updated', formatTime(app.updatedAt)],
  ]);
}

function credentialText(app: App): string {
  const own = app.credential === 'installation' ? 'installation-wide (compatibility mode)' : 'its own';
  return typeof app.previousTokenValidUntil === 'number'
    ? `${own}; the previous one valid until ${formatTime(app.previousTokenValidUntil)}`
    : own;
}

/**
 * Calls `answer` with `file` (when given) already created, new and owner-only, so the token the
 * server answers only once has a place to go before it is asked for; then writes it there. The
 * file is removed when the call fails, and the token printed after all when it cannot be written.
 */
async function withTokenFile(
  file: string | undefined,
  answer: () => Promise<AppWithToken>,
): Promise<AppWithToken> {
  if (file === undefined) return answer();
  let handle: FileHandle;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (err) {
    throw new CliFailure(
      'TW_ERR_INVALID_OPTION',
      `--token-file: cannot create ${file}: ${(err as Error).message}`,
    );
  }
  let app: AppWithToken;
  try {
    app = await answer();
  } catch (err) {
    await handle.close();
    await unlink(file).catch(() => undefined);
    throw err;
  }
  try {
    if (app.accessToken !== null) await handle.writeFile(`${app.accessToken}\n`);
  } catch (err) {
    console.error(`error: cannot write ${file} (${(err as Error).message}); the token is printed instead`);
    console.log(`executor token (shown this once): ${app.accessToken}`);
  } finally {
    await handle.close();
  }
  if (app.accessToken === null) await unlink(file).catch(() => undefined);
  return app;
}

/** The app as printed: without its token when that went to `file`. */
function withoutTokenIfKept(app: AppWithToken, file: string | undefined): AppWithToken {
  return file === undefined || app.accessToken === null ? app : { ...app, accessToken: null };
}

function printTokenNotice(app: AppWithToken, file: string | undefined): void {
  if (app.accessToken === null) {
    console.log('its executors use the installation-wide token (compatibility mode)');
    return;
  }
  if (file !== undefined) {
    console.log(
      `executor token written to ${file} (shown nowhere else; the server will not answer it again)`,
    );
    return;
  }
  console.log(`executor token (shown this once): ${app.accessToken}`);
  console.log(`  tickwheel executor --app ${app.appName} --token-file <a file holding it>`);
}
