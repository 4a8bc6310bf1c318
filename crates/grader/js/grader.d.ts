// Types of grader.js: the StreamLab engine and lesson checker with no UI.

/**
 * Loads the wasm once (in Node it reads the file next to the module). If the wasm stops inside
 * a call (an internal error, or a session that outgrew the 4 GB an instance can have), the call
 * throws an `Error`; that object refuses every later call, and objects created afterwards run
 * in a fresh instance.
 */
export function load(source?: BufferSource | URL | string | Response | WebAssembly.Module): Promise<void>;

/**
 * A reply as a value: bulk strings are strings, integers numbers, nulls `null`, arrays arrays,
 * booleans booleans; the rest are tagged objects.
 */
export type ReplyValue =
  | string
  | number
  | boolean
  | null
  | ReplyValue[]
  | { status: string }
  | { error: string }
  | { map: [ReplyValue, ReplyValue][] }
  | { set: ReplyValue[] }
  | { double: number | string }
  | { verbatim: string; format: string }
  | { push: ReplyValue[] };

/** One block of console output. */
export interface Output {
  /** The connection it reached, when not the one that ran the line. */
  to: string | null;
  text: string;
  kind: 'reply' | 'error' | 'info';
}

/** What one line did. */
export interface Executed {
  /** What redis-cli prints (`[NAME] ` before lines for other connections). */
  text: string;
  /** False when anything printed was an error. */
  ok: boolean;
  outputs: Output[];
  /** The replies to the connection that ran the line (none for meta-commands). */
  replies: ReplyValue[];
  /** Replies it caused on other connections (served blocked reads, Pub/Sub messages). */
  deliveries: { to: string; value: ReplyValue }[];
}

export interface PendingView { id: string; delivery_count: number; idle: number; deleted: boolean }
export interface ConsumerView {
  name: string; seen_ago: number; active_ago: number | null; pending_count: number; pending: PendingView[];
}
export interface GroupView {
  name: string; last_delivered_id: string; entries_read: number | null; lag: number | null;
  lag_reason: string | null; pending: number; consumers: ConsumerView[];
}
export interface EntryView {
  id: string; deleted: boolean; fields: [string, string][]; cursors: string[]; pending_in: string[];
}
export type RailItem =
  | { kind: 'node'; master_id: string; live: number; deleted: number; entries: EntryView[] }
  | { kind: 'collapsed'; nodes: number; first_id: string; last_id: string; live: number; deleted: number };
export interface StreamView {
  key: string; length: number; first_id: string; last_id: string; max_deleted_id: string;
  entries_added: number; tombstones: number; removed: number; node_count: number;
  rail: RailItem[]; groups: GroupView[];
}
export interface ConnectionView {
  name: string; id: number; multi: number | null;
  blocked: { command: string; deadline: number | null } | null;
  channels: string[]; patterns: string[];
  messages: { step: number; channel: string; pattern: string | null; payload: string }[];
}
/** The state the playground's pictures draw. */
export interface Snapshot {
  now: number; position: number; steps: number; current: string;
  connections: ConnectionView[]; streams: StreamView[];
  other_keys: { key: string; kind: string; value: string; expires: number | null }[];
  channels: { name: string; pattern: boolean; subscribers: string[] }[];
}

/** What `Session.run` did with a batch of lines. */
export interface Ran {
  /** Lines run (blank and comment lines count). */
  lines: number;
  /** The lines that printed an error: index (from 0) and what they printed. */
  errors: { line: number; text: string }[];
  /** The last line's result in full. */
  last: Executed;
}

export class Session {
  /**
   * Throws on an unknown profile. `clock` is the virtual clock's start (Unix ms). `history`
   * keeps only about the last that many steps for undo (default: all), so a long log costs
   * only its session's memory; `script()` then throws once steps are forgotten.
   */
  constructor(options?: { profile?: string; clock?: number; history?: number });
  execute(line: string): Executed;
  /** Runs many lines in one call into the wasm (cheaper than `execute` per line). */
  run(log: string | string[]): Ran;
  snapshot(): Snapshot;
  /** Throws when a bounded `history` has forgotten steps. */
  script(): string;
  readonly profile: string;
  readonly now: number;
  free(): void;
}

export interface TaskInfo {
  title: string;
  kind: 'reach-state' | 'predict' | 'choice' | 'numeric' | 'order';
  /** State-changing commands only: reads are free. */
  par: number | null;
  /** Options of a predict or choice task; steps of an order task. */
  options: number;
  /** A choice where several options are right. */
  multiple: boolean;
  /** The task starts where the previous one ended. */
  continues: boolean;
  /** The first task of its chain (the task itself unless it continues). */
  chainStart: number;
  /** The most it scores in the player: 3 for a reach-state task, 1 for a question. */
  max: number;
}
export interface LessonInfo {
  id: string; version: number; title: string; profile: string;
  /** Variant 0 is the lesson as written; 1.. are hidden variants. */
  variants: number;
  tasks: TaskInfo[];
}
/** A failed check, in the learner's terms. */
export interface Failure { message: string; expected: string; actual: string; hint: string | null; line: number }
export interface Verdict {
  passed: boolean; failures: Failure[];
  /** The lesson's explanation when the work matches a wrong path it foresaw. */
  misconception: string | null;
  commands: number; par: number;
}
export interface Answer { correct: boolean; reply: string; why: string }
export interface Grade { variant: number; passed: boolean; tasks: (Verdict & { task: number })[] }

export class Lesson {
  /** Parses a lesson file (TOML); throws with every problem and its line. */
  constructor(toml: string, file?: string);
  readonly info: LessonInfo;
  /** A reach-state task against a log (`:as NAME`, `name> CMD`, `:clock +MS` lines). */
  checkLog(task: number, log: string | string[], options?: { variant?: number; earlier?: (string | string[] | null)[] }): Verdict;
  /** An option (number), options (number[]), a typed reply or number (string), or { order }. */
  checkAnswer(task: number, answer: number | number[] | string | { order: number[] }, options?: { variant?: number }): Answer;
  checkChoice(task: number, option: number | number[], options?: { variant?: number }): Answer;
  /** An option's index, or the reply as the learner typed it. */
  checkPrediction(task: number, answer: number | string, options?: { variant?: number }): Answer;
  /** The lesson's option (or step) indices in the order attempt `attempt` showed them. */
  shownOrder(task: number, attempt: number): number[];
  /** Every reach-state task against one log, on one variant. */
  grade(log: string | string[], options?: { variant?: number }): Grade;
  /** Each reach-state task against its own log (`logs[n]`), continuing tasks from the earlier ones. */
  gradeTasks(logs: (string | string[] | null)[], options?: { variant?: number }): Grade;
  free(): void;
}

/** A task of a re-graded receipt. */
export interface TaskCheck {
  /** The task's index in the lesson file. */
  task: number;
  kind: 'reach-state' | 'question';
  /** Solved, as the replay finds it. */
  done: boolean;
  /** The score the replay gives, the most the task scores, and what the receipt claims. */
  score: number;
  max: number;
  claimed: number;
  /** The browser's word: a replay cannot tell. */
  hintsUsed: number;
  solutionViewed: boolean;
  /** State-changing commands in the checked log (reach-state tasks). */
  commands: number;
  /** The failing checks' messages, or the wrong answers' explanations. */
  failed: string[];
}

/** What verifyReceipt found. */
export interface ReceiptCheck {
  /** No problem: the receipt is of this lesson file and its scores are what its work earns. */
  valid: boolean;
  /** Every reason not to trust it. */
  problems: string[];
  lesson?: string;
  version?: number;
  attempt?: number;
  /** The variant the attempt picks (hidden unless 0). */
  variant?: number;
  profile?: string;
  /** The widget's mode: "quiz" plays the questions only. */
  mode?: string;
  /** When the attempt started and when the receipt was made (Unix ms, the learner's clock). */
  started?: number;
  saved?: number;
  /** The re-graded score, and the most the mode's tasks score. */
  score?: number;
  max?: number;
  /** What the receipt claims (its maximum is absent before any task was done). */
  claimed?: number;
  claimedMax?: number | null;
  /** Tasks solved, and tasks the mode plays. */
  done?: number;
  total?: number;
  tasks: TaskCheck[];
}

/** Replays a receipt token against the lesson file (TOML) and re-derives its scores; with
 * `null` for the lesson, what the receipt says of itself. Never throws for a bad receipt. */
export function verifyReceipt(receipt: string, lessonToml: string | null): Promise<ReceiptCheck>;
/** A receipt's text as a token, and back (throws on a damaged token); a text's fields. */
export function seal(text: string): Promise<string>;
export function openReceipt(token: string): Promise<string>;
export function parseReceipt(text: string): object;
/** The player's score rules: a solved reach-state task, a question answered right. */
export function taskScore(commands: number, par: number, hints: number, solutionViewed: boolean): number;
export function questionScore(wrong: number, solutionViewed: boolean): number;
