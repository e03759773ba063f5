import { Command, Option } from 'commander';
import { registerAgentCommands } from './commands/agents.ts';
import { registerApplyCommand } from './commands/apply.ts';
import { registerAuditCommands } from './commands/audit.ts';
import { registerChatCommands } from './commands/chat.ts';
import { registerCompletionCommand } from './commands/completion.ts';
import { registerConfigurationCommands } from './commands/configurations.ts';
import { registerContextCommands } from './commands/contexts.ts';
import { registerDeployCommands } from './commands/deploy.ts';
import { registerDiffCommand } from './commands/diff.ts';
import { registerIamCommands } from './commands/iam.ts';
import { registerNamespaceCommands } from './commands/namespaces.ts';
import { registerPluginCommands } from './commands/plugins.ts';
import { registerRevisionCommands } from './commands/revisions.ts';
import { registerSecretCommands } from './commands/secrets.ts';
import { registerSignInCommands } from './commands/sign-in.ts';
import { registerStandInModelCommand } from './commands/stand-in-model.ts';
import { registerServerCommands } from './commands/server/register.ts';
import { registerVersionCommand } from './commands/version.ts';
import { registerWhoAmICommands } from './commands/whoami.ts';
import { OUTPUT_FORMAT_HELP, parseOutputFormat } from './output/output-format.ts';

/** The whole `occ` command tree. Each group registers itself from its own file. */
export function buildProgram(): Command {
  const program = new Command('occ')
    .description('OCC — the OpenClaw Enterprise control plane, on the command line.')
    .addOption(new Option('--context <name>', 'use this context instead of the current one (env OCC_CONTEXT)'))
    .addOption(new Option('--server <url>', 'the OCC server (env OCC_SERVER; the key then comes from OCC_API_KEY)'))
    .addOption(new Option('-n, --namespace <name>', "the Namespace, by name or id (env OCC_NAMESPACE; default: the context's)"))
    .addOption(new Option('-o, --output <format>', OUTPUT_FORMAT_HELP).argParser(parseOutputFormat).default('table'))
    .addOption(new Option('-q, --quiet', 'print ids only (and no progress or notes)'))
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  program.addHelpText(
    'after',
    `
Examples:
  occ login --server http://127.0.0.1:8080 < .occ-data/admin-api-key
  occ agents list -n team-a
  occ deploy support-bot -n team-a --wait

Exit codes: 0 ok, 1 error, 2 usage or invalid request, 3 not found, 4 not signed in or
forbidden, 5 conflict, 6 deployment failed, 7 server unreachable. See docs/cli.md.`,
  );
  registerServerCommands(program);
  registerContextCommands(program);
  registerSignInCommands(program);
  registerWhoAmICommands(program);
  registerVersionCommand(program);
  registerNamespaceCommands(program);
  registerSecretCommands(program);
  registerConfigurationCommands(program);
  registerAgentCommands(program);
  registerApplyCommand(program);
  registerDiffCommand(program);
  registerPluginCommands(program);
  registerRevisionCommands(program);
  registerDeployCommands(program);
  registerChatCommands(program);
  registerIamCommands(program);
  registerAuditCommands(program);
  registerStandInModelCommand(program);
  registerCompletionCommand(program);
  // Every subcommand exits through main.ts, never through process.exit.
  const override = (command: Command) => {
    command.exitOverride();
    command.commands.forEach(override);
  };
  override(program);
  return program;
}

/** Adds a usage example under a command's --help. */
export function example(command: Command, ...lines: string[]): Command {
  return command.addHelpText('after', `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((line) => `  ${line}`).join('\n')}`);
}
