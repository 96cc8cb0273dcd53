// What happened to the instance, newest first; polled, so new events appear by themselves.
import { useEvents } from "../../api/instances.ts";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { formatTime } from "../../format/time.ts";

export function EventList({ id }: { id: string }) {
  const events = useEvents(id);
  return (
    <>
      <h2>Events</h2>
      {events.isPending && <Loading what="events" />}
      {events.isError && <LoadError what="events" error={events.error} />}
      {events.data?.length === 0 && <p className="empty">No events yet.</p>}
      {events.data && events.data.length > 0 && (
        <ol className="events" aria-live="polite">
          {events.data.map((event, index) => (
            <li key={`${event.created_at}-${events.data.length - index}`} data-testid="event">
              <time dateTime={event.created_at}>{formatTime(event.created_at)}</time> {event.message}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
