/** Success envelope shared by every route (spec conventions: success, data, optional message). */
export function ok<T>(data: T, message?: string): { success: true; data: T; message?: string } {
  return message ? { success: true, message, data } : { success: true, data };
}
