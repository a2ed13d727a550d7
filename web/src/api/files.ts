import { accessToken } from './client.ts';
import { ApiError, NETWORK_ERROR } from './errors.ts';
import { organizationHeaders } from './organization.ts';

/**
 * Binary transfers are the one exception to GraphQL-only: an upload streams the file as the
 * request body (XMLHttpRequest, for its progress events), a download fetches with the bearer
 * token and hands the browser a file.
 */
export async function uploadFile<T = Record<string, unknown>>(path: string, file: File, query: Record<string, string | undefined>, onProgress?: (fraction: number) => void): Promise<T> {
  const token = await accessToken();
  const qs = new URLSearchParams(Object.entries({ filename: file.name, ...query }).filter((e): e is [string, string] => !!e[1]));
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${path}?${qs}`);
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    for (const [name, value] of Object.entries(organizationHeaders())) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress?.(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError(NETWORK_ERROR, 'network error', 0));
    xhr.onload = () => {
      let body: { error?: { code: string; message: string; details?: Record<string, unknown> } } & Record<string, unknown> = {};
      try { body = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      // the route's answer, as the server's schema for it says (JSON has no types to check here)
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else reject(new ApiError(body.error?.code ?? (xhr.status >= 500 ? 'INTERNAL_ERROR' : `HTTP_${xhr.status}`), body.error?.message ?? xhr.statusText, xhr.status, body.error?.details));
    };
    xhr.send(file);
  });
}

/** A GET of one of our binary routes with the bearer token (downloads, authorised images). */
export async function fetchWithToken(path: string): Promise<Response> {
  const token = await accessToken();
  return fetch(path, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...organizationHeaders() } });
}

export async function downloadFile(path: string, fallbackName: string): Promise<void> {
  let res: Response;
  try {
    res = await fetchWithToken(path);
  } catch (err) {
    throw new ApiError(NETWORK_ERROR, String(err), 0);
  }
  if (!res.ok) {
    const { fromResponse } = await import('./errors.ts');
    throw await fromResponse(res);
  }
  const name = /filename\*=UTF-8''([^;]+)/i.exec(res.headers.get('content-disposition') ?? '')?.[1];
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name ? decodeURIComponent(name) : fallbackName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
