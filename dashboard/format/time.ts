// Times as the browser's own clock shows them (its time zone and locale); the API sends ISO 8601 UTC.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

export const formatTime = (iso: string) => dateTime.format(new Date(iso));
