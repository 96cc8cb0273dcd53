// A page's heading and the document title; focus moves to the heading when the page opens, so a
// screen reader or keyboard user starts at the new page rather than at the link they followed.
import { useEffect, useRef, type ReactNode } from "react";

export function PageTitle({ title, children }: { title: string; children?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · GPU rental`;
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children ?? title}
    </h1>
  );
}
