/**
 * `tickwheel user list|add|update|rm|passwd`: console users over the REST API. Managing users is
 * for admins (`listUsers`, `createUser`, `updateUser`, `deleteUser`); everyone may change their
 * own password (`changePassword`). Passwords are read from stdin with `--password-stdin`, so they
 * stay out of the shell history and the process list.
 */
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { type ApiClient, type Body, call, type User } from '../api-client.js';
import { resolveApp } from '../app-ref.js';
import { parseWholeNumber } from '../flag-parsers.js';
import { printJson, printPageFooter, printTable } from '../output.js';
import { action, CliFailure, clientOf, parseId, restFlags, withServerOptions } from '../rest-command.js';

interface UserFlags {
  password?: string;
  passwordStdin?: boolean;
  role?: string;
  app?: string[];
}

export function registerUserCommand(program: Command): void {
  const user = withServerOptions(
    program.command('user').description('manage users (admins) and change your own password'),
  );

  user
    .command('list')
    .description('list users with their role and apps (admins)')
    .option('--limit <n>', 'at most this many (default 50, at most 200)', parseWholeNumber)
    .option('--offset <n>', 'skip this many', parseWholeNumber)
    .action(
      action(async (flags: { limit?: number; offset?: number }, command: Command) => {
        const page = await call(
          clientOf(command).GET('/api/v1/users', {
            params: { query: { limit: flags.limit, offset: flags.offset } },
          }),
        );
        if (restFlags(command).json) return printJson(page);
        printTable(
          ['ID', 'USERNAME', 'ROLE', 'APPS'],
          page.items.map((item) => [item.id, item.username, item.role, appsText(item)]),
        );
        printPageFooter(page);
      }),
    );

  withUserFlags(
    user.command('add').description('create a user (admins)').argument('<username>', 'the login name'),
  ).action(
    action(async (username: string, flags: UserFlags, command: Command) => {
      const client = clientOf(command);
      const password = passwordOf(flags);
      if (password === undefined)
        throw new CliFailure('TW_ERR_INVALID_OPTION', 'give --password or --password-stdin');
      const created = await call(
        client.POST('/api/v1/users', {
          body: { username, password, role: roleOf(flags) ?? 'USER', ...(await appIdsOf(client, flags)) },
        }),
      );
      if (restFlags(command).json) return printJson(created);
      console.log(`created user ${created.id} (${created.username}, ${created.role})`);
    }),
  );

  withUserFlags(
    user
      .command('update')
      .description('change a user’s password, role or apps (admins)')
      .argument('<id>', 'user id', parseId),
  ).action(
    action(async (id: number, flags: UserFlags, command: Command) => {
      const client = clientOf(command);
      const password = passwordOf(flags);
      const body = {
        ...(password === undefined ? {} : { password }),
        ...(flags.role === undefined ? {} : { role: roleOf(flags) }),
        ...(await appIdsOf(client, flags)),
      };
      if (Object.keys(body).length === 0)
        throw new CliFailure('TW_ERR_INVALID_OPTION', 'nothing to change: give --password, --role or --app');
      const updated = await call(client.PATCH('/api/v1/users/{id}', { params: { path: { id } }, body }));
      if (restFlags(command).json) return printJson(updated);
      console.log(`updated user ${id}`);
    }),
  );

  user
    .command('rm')
    .description('delete a user (admins)')
    .argument('<id>', 'user id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        await call(clientOf(command).DELETE('/api/v1/users/{id}', { params: { path: { id } } }));
        if (restFlags(command).json) return printJson({ deleted: id });
        console.log(`deleted user ${id}`);
      }),
    );

  user
    .command('passwd')
    .description('change your own password (the user the token belongs to); your sessions end')
    .requiredOption('--current <password>', 'your current password')
    .option('--new <password>', 'the new password')
    .option('--password-stdin', 'read the new password from stdin')
    .action(
      action(async (flags: { current: string; new?: string; passwordStdin?: boolean }, command: Command) => {
        const next = flags.passwordStdin ? readStdinLine() : flags.new;
        if (next === undefined)
          throw new CliFailure('TW_ERR_INVALID_OPTION', 'give --new or --password-stdin');
        await call(
          clientOf(command).POST('/api/v1/me/password', {
            body: { currentPassword: flags.current, newPassword: next },
          }),
        );
        if (restFlags(command).json) return printJson({ changed: true });
        console.log('password changed');
      }),
    );
}

function withUserFlags(command: Command): Command {
  return command
    .option('--password <password>', 'the password (prefer --password-stdin)')
    .option('--password-stdin', 'read the password from stdin')
    .addOption(
      new Option('--role <role>', 'ADMIN or USER (default USER)').argParser((value) => value.toUpperCase()),
    )
    .option(
      '--app <app>',
      'an app the user may see and operate, id or appName (repeat; "" for none)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
}

/** `--role` as given: the server refuses any but ADMIN and USER, naming the field. */
function roleOf(flags: UserFlags): Body<'createUser'>['role'] | undefined {
  return flags.role as Body<'createUser'>['role'] | undefined;
}

function passwordOf(flags: UserFlags): string | undefined {
  return flags.passwordStdin ? readStdinLine() : flags.password;
}

async function appIdsOf(client: ApiClient, flags: UserFlags): Promise<{ appIds?: number[] }> {
  if (flags.app === undefined) return {};
  const refs = flags.app.filter((ref) => ref !== '');
  const apps = await Promise.all(refs.map((ref) => resolveApp(client, ref)));
  return { appIds: apps.map((app) => app.id) };
}

function appsText(user: User): string {
  if (user.role === 'ADMIN') return 'all';
  return user.appIds.length > 0 ? user.appIds.join(',') : '-';
}

function readStdinLine(): string {
  const text = readFileSync(0, 'utf8').replace(/\r?\n$/, '');
  if (text === '') throw new CliFailure('TW_ERR_INVALID_OPTION', 'stdin gave an empty password');
  return text;
}
