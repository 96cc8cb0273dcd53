// Copies a text to the clipboard and says so (or says to copy it by hand where the browser refuses).
import { useState } from "react";

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [outcome, setOutcome] = useState<string>("");
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setOutcome("Copied"),
      () => setOutcome("The browser refused: select the text and copy it"),
    );
  return (
    <>
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" className="muted">
        {outcome}
      </span>
    </>
  );
}
