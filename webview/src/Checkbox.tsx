/** A VS Code checkbox whose change reaches React (its change event is read from the element). */
import type { VscodeCheckbox as CheckboxElement } from '@vscode-elements/elements/dist/vscode-checkbox/vscode-checkbox.js';
import VscodeCheckbox from '@vscode-elements/react-elements/dist/components/VscodeCheckbox.js';
import { useDomEvent } from './hooks/useDomEvent';

export function Checkbox({
  label,
  checked,
  onToggle,
  className,
  title,
}: {
  label: string;
  checked: boolean;
  onToggle: (checked: boolean) => void;
  className?: string;
  title?: string;
}) {
  const ref = useDomEvent<CheckboxElement>('change', (element) => onToggle(element.checked));
  return <VscodeCheckbox ref={ref} className={className} checked={checked} label={label} title={title} />;
}
