// What happened to the instance, newest first; polled, so new events appear by themselves.
import { useEvents } from "../../api/instances.ts";
import { QueryList } from "../../components/query-state.tsx";
import { formatTime } from "../../format/time.ts";

export function EventList({ id }: { id: string }) {
  const events = useEvents(id);
  return (
    <>
      <h2>Events</h2>
      <QueryList query={events} what="events" empty="No events yet.">
        {(list) => (
          <ol className="events" aria-live="polite">
            {list.map((event, index) => (
              <li key={`${event.created_at}-${list.length - index}`} data-testid="event">
                <time dateTime={event.created_at}>{formatTime(event.created_at)}</time> {event.message}
              </li>
            ))}
          </ol>
        )}
      </QueryList>
    </>
  );
}
