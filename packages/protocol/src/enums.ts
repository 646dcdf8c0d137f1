/**
 * The shared enums, spelled as XXL-JOB spells them so rows and wire messages carry over.
 * Each is a readonly tuple (for validation and UI lists) plus its union type.
 */
export const SCHEDULE_TYPES = ['NONE', 'CRON', 'FIX_RATE', 'FIX_DELAY', 'ONCE'] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];

export const MISFIRE_STRATEGIES = ['DO_NOTHING', 'FIRE_ONCE_NOW'] as const;
export type MisfireStrategy = (typeof MISFIRE_STRATEGIES)[number];

export const ROUTE_STRATEGIES = [
  'FIRST',
  'LAST',
  'ROUND',
  'RANDOM',
  'CONSISTENT_HASH',
  'LEAST_FREQUENTLY_USED',
  'LEAST_RECENTLY_USED',
  'FAILOVER',
  'BUSYOVER',
  'SHARDING_BROADCAST',
] as const;
export type RouteStrategy = (typeof ROUTE_STRATEGIES)[number];

export const BLOCK_STRATEGIES = ['SERIAL_EXECUTION', 'DISCARD_LATER', 'COVER_EARLY'] as const;
export type BlockStrategy = (typeof BLOCK_STRATEGIES)[number];

export const GLUE_TYPES = [
  'BEAN',
  'GLUE_GROOVY',
  'GLUE_SHELL',
  'GLUE_PYTHON',
  'GLUE_PYTHON2',
  'GLUE_PHP',
  'GLUE_NODEJS',
  'GLUE_POWERSHELL',
] as const;
export type GlueType = (typeof GLUE_TYPES)[number];

/** Script glue types an executor runs as a child process, with interpreter and file suffix. */
export const SCRIPT_GLUE = {
  GLUE_SHELL: { command: 'bash', suffix: '.sh' },
  GLUE_PYTHON: { command: 'python3', suffix: '.py' },
  GLUE_PYTHON2: { command: 'python', suffix: '.py' },
  GLUE_PHP: { command: 'php', suffix: '.php' },
  GLUE_NODEJS: { command: 'node', suffix: '.js' },
  GLUE_POWERSHELL: { command: 'pwsh', suffix: '.ps1' },
} as const satisfies Partial<Record<GlueType, { command: string; suffix: string }>>;
export type ScriptGlueType = keyof typeof SCRIPT_GLUE;

export function isScriptGlueType(glueType: string): glueType is ScriptGlueType {
  return Object.hasOwn(SCRIPT_GLUE, glueType);
}

export const TRIGGER_TYPES = ['CRON', 'MANUAL', 'API', 'RETRY', 'PARENT', 'MISFIRE', 'WORKFLOW'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** Handle codes a run reports: 200 success, 500 failure, 502 timeout. */
export const HandleCode = {
  SUCCESS: 200,
  FAIL: 500,
  TIMEOUT: 502,
} as const;
export type HandleCodeValue = (typeof HandleCode)[keyof typeof HandleCode];
export const HANDLE_CODES = [200, 500, 502] as const;

/** ReturnT codes: 200 success, 500 failure. */
export const ReturnCode = { SUCCESS: 200, FAIL: 500 } as const;

/** Protocol generations (see PROTOCOL.md). */
export const PROTOCOL_GENERATIONS = ['G2', 'G3', 'G4'] as const;
export type ProtocolGeneration = (typeof PROTOCOL_GENERATIONS)[number];

/** Registry group for executors; the only value XXL-JOB uses on the wire. */
export const REGISTRY_GROUP_EXECUTOR = 'EXECUTOR';
