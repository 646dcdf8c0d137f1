/**
 * `tickwheel app list|get|add|rm`: apps (XXL-JOB's executor groups) over the REST API. An app is
 * named by id or by appName.
 */
import type { Command } from 'commander';
import type { App } from '../api-client.js';
import { resolveApp } from '../app-ref.js';
import { collectUrls, parseWholeNumber } from '../flag-parsers.js';
import { formatTime, printJson, printPageFooter, printRecord, printTable } from '../output.js';
import { action, clientOf, restFlags, withServerOptions } from '../rest-command.js';

interface ListFlags {
  name?: string;
  limit?: number;
  offset?: number;
}

interface AddFlags {
  title?: string;
  address?: string[];
}

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
        const page = await clientOf(command).listApps({
          appName: flags.name,
          limit: flags.limit,
          offset: flags.offset,
        });
        if (restFlags(command).json) return printJson(page);
        printTable(
          ['ID', 'APP NAME', 'TITLE', 'ADDRESSES', 'ONLINE'],
          page.items.map((item) => [
            item.id,
            item.appName,
            item.title,
            item.addressType === 'MANUAL' ? item.addressList.join(',') : 'AUTO',
            item.onlineAddresses.length,
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
    .action(
      action(async (appName: string, flags: AddFlags, command: Command) => {
        const addresses = flags.address ?? [];
        const created = await clientOf(command).createApp({
          appName,
          title: flags.title ?? appName,
          ...(addresses.length > 0 ? { addressType: 'MANUAL', addressList: addresses } : {}),
        });
        if (restFlags(command).json) return printJson(created);
        console.log(`created app ${created.id} (${created.appName})`);
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
        await client.deleteApp(found.id);
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
    ['created', formatTime(app.createdAt)],
    ['updated', formatTime(app.updatedAt)],
  ]);
}
