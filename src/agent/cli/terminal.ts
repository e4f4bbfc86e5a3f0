/**
 * The CLI's terminal: one line reader over stdin for the whole process (several readers on one piped
 * stdin would lose buffered lines), hidden input for passwords, and the PromptPort the CLI gives the
 * agent. Lines nobody is waiting for go to the `run` console's command handler.
 */
import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import { describeNotice, describeTotpPrompt } from '../../api/prompts.js';
import type { AgentNotice, PromptPort, TotpPrompt } from '../prompts/prompt-port.js';

export interface TerminalIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
  /** warnings (standard error by default) */
  errors?: NodeJS.WritableStream;
}

export class Terminal {
  private reader: Interface | undefined;
  private muted = false;
  private ended = false;
  private readonly buffered: string[] = [];
  private waiter: ((line: string | null) => void) | undefined;
  private commandHandler: ((line: string) => void) | undefined;
  /** Which lines are console commands (`status`, `quit`...): a code prompt passes them on, never takes them. */
  private isCommand: (line: string) => boolean = () => false;
  /** The question being asked, while its answer is awaited; other output is printed above it. */
  /** `onItsLine`: nothing has been written after the question yet (the cursor is still on its line). */
  private openQuestion: { text: string; passCommands: boolean; onItsLine: boolean } | undefined;

  /** Where `json()` writes; set apart from `io.output` by `jsonOnStdout()`. */
  private dataOutput: NodeJS.WritableStream;

  constructor(private io: TerminalIo = { input: process.stdin, output: process.stdout }) {
    this.dataOutput = io.output;
  }

  /**
   * `--json`: standard output carries only JSON values, one per line, so a script can parse every line;
   * text for people (tables, prompts, notices) moves to standard error. Call before anything is asked.
   */
  jsonOnStdout(): void {
    const errors = this.io.errors ?? process.stderr;
    this.dataOutput = this.io.output;
    this.io = { ...this.io, output: errors, errors };
  }

  get interactive(): boolean {
    return Boolean(this.io.input.isTTY && this.io.output.isTTY);
  }

  /**
   * Text for people: standard output, or standard error under `--json`. While a question waits for its
   * answer, the text goes above it and the question is shown again below (with what was typed so far), so
   * later output never runs into the prompt line.
   */
  print(text = ''): void {
    const open = this.openQuestion;
    if (!open) {
      this.io.output.write(`${text}\n`);
      return;
    }
    if (this.interactive) {
      // On a terminal: back to the start of the prompt's line, clear it, and show the question again below.
      this.io.output.write(`\r\x1b[K${text}\n${open.text}`);
      if (!this.muted) this.io.output.write(this.reader?.line ?? '');
      return;
    }
    // Elsewhere (a pipe, a log file) the question is not drawn again: the text starts on a line of its own,
    // and the question appears once per time it is asked.
    this.io.output.write(`${open.onItsLine ? '\n' : ''}${text}\n`);
    open.onItsLine = false;
  }

  /** One JSON value on one line of standard output (the `--json` form of a command's result). */
  json(value: unknown): void {
    this.jsonLine(JSON.stringify(value));
  }

  /** A value already serialised as one line of JSON. */
  jsonLine(text: string): void {
    this.dataOutput.write(`${text}\n`);
  }

  /** A warning on standard error, so it never mixes into output a script reads. */
  warn(text: string): void {
    (this.io.errors ?? process.stderr).write(`postern-agent: ${text}\n`);
  }

  /** Asks one question; null when stdin has ended or the signal aborted. */
  async ask(
    question: string,
    options: { hidden?: boolean; signal?: AbortSignal; passCommands?: boolean } = {},
  ): Promise<string | null> {
    this.open();
    this.io.output.write(question);
    this.muted = Boolean(options.hidden);
    this.openQuestion = { text: question, passCommands: Boolean(options.passCommands), onItsLine: true };
    try {
      const line = await this.nextLine(options.signal);
      // Nothing echoed the Enter key: a hidden answer, or input that is not a terminal (and nothing was
      // printed after the question since, which ended its line already).
      if (options.hidden || (!this.interactive && this.openQuestion?.onItsLine)) this.io.output.write('\n');
      return line;
    } finally {
      this.muted = false;
      this.openQuestion = undefined;
    }
  }

  /** The next line of input, asking nothing (`enroll --token -`); null when stdin has ended. */
  readLine(): Promise<string | null> {
    this.open();
    return this.nextLine();
  }

  /**
   * Lines typed while no question is open (the `run` console). `isCommand` names the lines that are
   * commands: typed while a code prompt is open, they run and the prompt stays open.
   */
  onCommand(
    handler: ((line: string) => void) | undefined,
    isCommand: (line: string) => boolean = () => false,
  ): void {
    this.commandHandler = handler;
    this.isCommand = handler ? isCommand : () => false;
    if (handler) this.open();
  }

  close(): void {
    this.reader?.close();
    this.reader = undefined;
  }

  private open(): void {
    if (this.reader || this.ended) return;
    // Echo goes through this filter so hidden answers are not shown.
    const output = new Writable({
      write: (chunk, encoding, done) => {
        if (!this.muted) this.io.output.write(chunk, encoding);
        done();
      },
    });
    this.reader = createInterface({ input: this.io.input, output, terminal: this.interactive });
    this.reader.on('line', (line) => {
      if (this.waiter && this.openQuestion?.passCommands && this.commandHandler && this.isCommand(line)) {
        // A command word is never an answer: it runs, its output printed above the question (see print).
        this.commandHandler(line);
        return;
      }
      const waiter = this.waiter;
      this.waiter = undefined;
      if (waiter) waiter(line);
      else if (this.commandHandler) this.commandHandler(line);
      else this.buffered.push(line);
    });
    this.reader.on('close', () => {
      this.ended = true;
      this.reader = undefined;
      this.waiter?.(null);
      this.waiter = undefined;
    });
  }

  private nextLine(signal?: AbortSignal): Promise<string | null> {
    const line = this.buffered.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended || signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.waiter = undefined;
        resolve(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiter = (value) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
    });
  }
}

/** Prompts and notices as terminal lines. */
export class TerminalPromptPort implements PromptPort {
  /**
   * `connectionNotices` is for the long-running console; a one-shot command reports an unreachable
   * controller in its own error line instead.
   */
  private presetCode: string | undefined;

  /** `presetCode` (POSTERN_TOTP_CODE) answers the first prompt, for scripts; a one-time code serves once. */
  constructor(
    private readonly terminal: Terminal,
    private readonly options: { connectionNotices?: boolean; now?: () => number; presetCode?: string } = {},
  ) {
    this.presetCode = options.presetCode || undefined;
  }

  async promptTotp(prompt: TotpPrompt, signal: AbortSignal): Promise<string | null> {
    const preset = this.presetCode;
    this.presetCode = undefined;
    if (preset) return preset;
    const t = this.terminal;
    t.print();
    if (prompt.error) t.print(prompt.error);
    else t.print(describeTotpPrompt(prompt, (this.options.now ?? Date.now)()));
    if (prompt.services.length && prompt.attempt === 1)
      t.print(`  services: ${prompt.services.map((s) => s.name).join(', ')}`);
    const answer = await t.ask('Authenticator code (or a recovery code; empty to skip): ', {
      signal,
      passCommands: true,
    });
    if (signal.aborted) t.print('(code prompt closed)');
    return answer;
  }

  updatePrompt(prompt: TotpPrompt): void {
    this.terminal.print(
      `(the code you enter now also covers: ${prompt.services.map((s) => s.name).join(', ')})`,
    );
  }

  notify(notice: AgentNotice): void {
    const connection = notice.type === 'controller-reachable' || notice.type === 'controller-unreachable';
    if (connection && !this.options.connectionNotices) return;
    this.terminal.print(describeNotice(notice));
  }
}
