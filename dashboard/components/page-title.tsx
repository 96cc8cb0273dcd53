// A page's heading and the document title. Focus moves to the heading when the page opens (not
// when its title changes, as on a rename), so a screen reader or keyboard user starts at the new
// page rather than at the link they followed.
import { useEffect, useRef } from "react";

export function PageTitle({ title }: { title: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus({ preventScroll: true }), []);
  useEffect(() => {
    document.title = `${title} · GPU rental`;
  }, [title]);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {title}
    </h1>
  );
}
