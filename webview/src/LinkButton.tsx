import type { ReactNode } from 'react';
import { useTabIndex } from './tabbable';

/** An action that reads as a link (opens a value, selects a model call): a real button, for keyboards and screen readers. */
export function LinkButton({
  onClick,
  className,
  title,
  children,
}: {
  onClick: () => void;
  className?: string;
  title?: string;
  children: ReactNode;
}) {
  const tabIndex = useTabIndex();
  return (
    <button
      type="button"
      className={className ? `link ${className}` : 'link'}
      title={title}
      tabIndex={tabIndex}
      onClick={onClick}
    >
      {children}
    </button>
  );
}
