/**
 * Syntax highlighting per script (GLUE) type. Only the script page imports this module, so
 * CodeMirror and its languages stay in that page's lazily loaded chunks.
 */
import { javascript } from '@codemirror/lang-javascript';
import { php } from '@codemirror/lang-php';
import { python } from '@codemirror/lang-python';
import { StreamLanguage } from '@codemirror/language';
import { groovy } from '@codemirror/legacy-modes/mode/groovy';
import { powerShell } from '@codemirror/legacy-modes/mode/powershell';
import { shell } from '@codemirror/legacy-modes/mode/shell';
import type { Extension } from '@codemirror/state';
import type { Body } from '../../api/types';

export type ScriptType = NonNullable<Body<'updateJobScript'>['glueType']>;

/** The script types a job may have, in XXL-JOB's order. */
export const SCRIPT_TYPES: readonly ScriptType[] = [
  'GLUE_SHELL',
  'GLUE_PYTHON',
  'GLUE_PYTHON2',
  'GLUE_NODEJS',
  'GLUE_PHP',
  'GLUE_POWERSHELL',
  'GLUE_GROOVY',
];

export function isScriptType(glueType: string): glueType is ScriptType {
  return (SCRIPT_TYPES as readonly string[]).includes(glueType);
}

export function languageOf(glueType: string): Extension {
  switch (glueType) {
    case 'GLUE_SHELL':
      return StreamLanguage.define(shell);
    case 'GLUE_PYTHON':
    case 'GLUE_PYTHON2':
      return python();
    case 'GLUE_NODEJS':
      return javascript();
    case 'GLUE_PHP':
      return php();
    case 'GLUE_POWERSHELL':
      return StreamLanguage.define(powerShell);
    case 'GLUE_GROOVY':
      return StreamLanguage.define(groovy);
    default:
      return [];
  }
}
