/**
 * CodeMirror 6 with the script type's highlighting: the editor, a read-only viewer of an old
 * version, or (with `original`) a unified diff from `original` to `value`.
 */
import { unifiedMergeView } from '@codemirror/merge';
import { EditorView } from '@codemirror/view';
import CodeMirror from '@uiw/react-codemirror';
import { useMemo } from 'react';
import { languageOf } from './script-languages';

interface ScriptEditorProps {
  value: string;
  glueType: string;
  /** The editor's accessible name. */
  label: string;
  onChange?(value: string): void;
  readOnly?: boolean;
  /** Shows the changes from this text to `value` (read-only). */
  original?: string;
  height?: string;
  testId?: string;
}

export function ScriptEditor({
  value,
  glueType,
  label,
  onChange,
  readOnly = false,
  original,
  height = '60vh',
  testId,
}: ScriptEditorProps) {
  const extensions = useMemo(
    () => [
      languageOf(glueType),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label }),
      ...(original === undefined
        ? []
        : [unifiedMergeView({ original, mergeControls: false, highlightChanges: true, gutter: true })]),
    ],
    [glueType, label, original],
  );
  const fixed = readOnly || original !== undefined;
  return (
    <CodeMirror
      data-testid={testId}
      value={value}
      height={height}
      extensions={extensions}
      readOnly={fixed}
      editable={!fixed}
      onChange={onChange}
      basicSetup={{ foldGutter: !fixed, highlightActiveLine: !fixed, autocompletion: !fixed }}
      style={{ border: '1px solid #d9d9d9', borderRadius: 6, overflow: 'hidden', fontSize: 13 }}
    />
  );
}
