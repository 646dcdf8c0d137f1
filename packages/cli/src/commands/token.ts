/**
 * `tickwheel token list|create|revoke`: the caller's own API tokens (`listApiTokens`,
 * `createApiToken`, `revokeApiToken`). A new token is printed once: only its hash is stored.
 */
import type { Command } from 'commander';
import { call } from '../api-client.js';
import { formatTime, printJson, printTable } from '../output.js';
import { action, clientOf, parseId, restFlags, withServerOptions } from '../rest-command.js';

export function registerTokenCommand(program: Command): void {
  const token = withServerOptions(
    program.command('token').description('list, create and revoke your API tokens'),
  );

  token
    .command('list')
    .description('list your API tokens (never their secret)')
    .action(
      action(async (_flags: unknown, command: Command) => {
        const list = await call(clientOf(command).GET('/api/v1/tokens'));
        if (restFlags(command).json) return printJson(list);
        printTable(
          ['ID', 'NAME', 'CREATED', 'LAST USED'],
          list.items.map((item) => [
            item.id,
            item.name,
            formatTime(item.createdAt),
            formatTime(item.lastUsedAt),
          ]),
        );
      }),
    );

  token
    .command('create')
    .description('create a token acting as you; it is shown once')
    .argument('<name>', 'what the token is for, e.g. "ci deploys"')
    .action(
      action(async (name: string, _flags: unknown, command: Command) => {
        const created = await call(clientOf(command).POST('/api/v1/tokens', { body: { name } }));
        if (restFlags(command).json) return printJson(created);
        console.log(created.token);
        console.error(`token ${created.id} (${created.name}) created; it is shown only this once`);
      }),
    );

  token
    .command('revoke')
    .description('revoke one of your tokens')
    .argument('<id>', 'token id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        await call(clientOf(command).DELETE('/api/v1/tokens/{id}', { params: { path: { id } } }));
        if (restFlags(command).json) return printJson({ revoked: id });
        console.log(`revoked token ${id}`);
      }),
    );
}
