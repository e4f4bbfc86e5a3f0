/**
 * `services` (the access table), `report` (one posture cycle, showing what was sent) and `check` ("Check
 * again": everything collected and sent afresh, then the new table).
 */
import { CliError, EXIT, type ExitCode } from '../cli-errors.js';
import { createAgent, requireActive, signIn, type CliContext } from '../cli-context.js';
import { describeResponse, servicesTable } from '../format.js';

export async function servicesCommand(ctx: CliContext): Promise<ExitCode> {
  const agent = await createAgent(ctx);
  try {
    requireActive(await signIn(agent, ctx));
    const services = await agent.refreshServices();
    if (ctx.args.json) ctx.terminal.json(services);
    else ctx.terminal.print(servicesTable(services));
    return EXIT.ok;
  } finally {
    await agent.stop();
  }
}

export async function reportCommand(ctx: CliContext): Promise<ExitCode> {
  const agent = await createAgent(ctx);
  try {
    requireActive(await signIn(agent, ctx));
    const result = await agent.reportNow();
    if (result.error) throw result.error;
    if (result.skipped) throw new CliError(`cannot report: the session is ${result.skipped}`, EXIT.auth);
    const services = agent.services();
    if (ctx.args.json) {
      ctx.terminal.json({ sent: result.sent, unchanged: result.unchanged, services });
      return EXIT.ok;
    }
    const t = ctx.terminal;
    if (result.sent.length === 0) t.print('Nothing to send: no service asks for posture data.');
    else t.print(`Sent ${result.sent.length} posture response${result.sent.length === 1 ? '' : 's'}:`);
    for (const r of result.sent) t.print(`  ${describeResponse(r)}`);
    t.print();
    t.print(servicesTable(services));
    return EXIT.ok;
  } finally {
    await agent.stop();
  }
}

export async function checkCommand(ctx: CliContext): Promise<ExitCode> {
  const agent = await createAgent(ctx);
  try {
    requireActive(await signIn(agent, ctx));
    const { report, services } = await agent.checkAgain();
    if (ctx.args.json) {
      ctx.terminal.json({ sent: report.sent, services });
      return EXIT.ok;
    }
    const what = report.sent.map((r) => describeResponse(r).split(/\s+/)[0]).join(', ');
    ctx.terminal.print(
      report.sent.length
        ? `Checked this device (${what}) just now:`
        : 'Checked just now: no service asks for posture data.',
    );
    ctx.terminal.print(servicesTable(services));
    return EXIT.ok;
  } finally {
    await agent.stop();
  }
}
