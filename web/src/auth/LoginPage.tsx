import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { login } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { errorMessage } from '../app/errors.ts';
import { useT } from '../i18n/index.tsx';

export function LoginPage() {
  const t = useT();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const search = useSearch({ strict: false }) as { redirect?: string; expired?: boolean; signed_out?: boolean };
  const [error, setError] = useState<string | null>(search.expired ? t('login.expired') : null);
  const [busy, setBusy] = useState(false);
  // while the person types, fetch the code the first screen after login needs
  useEffect(() => {
    const id = setTimeout(() => { void import('../views/list/ListView.tsx'); }, 300);
    return () => clearTimeout(id);
  }, []);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      // POST /api/auth/login in cookie mode: the refresh token goes into an HttpOnly cookie
      await login(String(data.get('email')), String(data.get('password')));
      qc.clear();
      const to = search.redirect && search.redirect.startsWith('/') && !search.redirect.startsWith('//') ? search.redirect : '/';
      await navigate({ to, replace: true });
    } catch (err) {
      setError(err instanceof ApiError && err.code === 'AUTHENTICATION_FAILED' ? t('login.failed')
        : err instanceof ApiError && err.status === 429 ? t('login.throttled') : errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="login-page">
      <Form className="login-card" onSubmit={submit} aria-labelledby="login-title">
        <div className="brand-mark" aria-hidden="true" />
        <h1 id="login-title">{t('login.title')}</h1>
        <TextField name="email" type="email" isRequired autoComplete="username" autoFocus className="field">
          <Label>{t('login.email')}</Label>
          <Input data-testid="login-email" />
        </TextField>
        <TextField name="password" type="password" isRequired autoComplete="current-password" className="field">
          <Label>{t('login.password')}</Label>
          <Input data-testid="login-password" />
        </TextField>
        {search.signed_out && !error && <p className="form-notice" role="status" data-testid="login-signed-out">{t('login.signed_out')}</p>}
        {error && <p className="form-error" role="alert" data-testid="login-error">{error}</p>}
        <Button type="submit" className="btn btn-primary" isDisabled={busy} data-testid="login-submit">{t('login.submit')}</Button>
      </Form>
    </main>
  );
}
