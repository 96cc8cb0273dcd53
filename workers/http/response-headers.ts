// Changing a response's headers, whether or not the runtime lets them be changed in place.

/** `response` with `edit` applied to its headers: in place, or on a copy (the body is not copied). */
export function withHeaders(response: Response, edit: (headers: Headers) => void): Response {
  try {
    edit(response.headers);
    return response;
  } catch {
    // Headers of a response from another object's fetch or the asset server are immutable.
    const copy = new Response(response.body, response);
    edit(copy.headers);
    return copy;
  }
}
