import type { ReactNode } from 'react';

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
  return (
    <button type="button" className={className ? `link ${className}` : 'link'} title={title} onClick={onClick}>
      {children}
    </button>
  );
}
