/**
 * Routes. The sign-in page is in the entry chunk (a signed-out visitor sees it without another
 * round trip); the frame and every other page are lazily loaded chunks, so the first page does
 * not wait for the menu, the script editor or the charts.
 */
import { lazy, type ReactNode, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { useAuth } from './auth/AuthContext';
import { PageLoading } from './components/PageLoading';
import LoginPage from './pages/login/LoginPage';

const StatusPage = lazy(() => import('./components/StatusPage'));
const Shell = lazy(() => import('./Shell').then((module) => ({ default: module.Shell })));
const DashboardPage = lazy(() => import('./pages/dashboard/DashboardPage'));
const AppsPage = lazy(() => import('./pages/apps/AppsPage'));
const JobsPage = lazy(() => import('./pages/jobs/JobsPage'));
const JobEditPage = lazy(() => import('./pages/jobs/JobEditPage'));
const WorkflowsPage = lazy(() => import('./pages/workflows/WorkflowsPage'));
const WorkflowEditPage = lazy(() => import('./pages/workflows/WorkflowEditPage'));
const WorkflowRunsPage = lazy(() => import('./pages/workflows/WorkflowRunsPage'));
const WorkflowRunPage = lazy(() => import('./pages/workflows/WorkflowRunPage'));
const ScriptPage = lazy(() => import('./pages/scripts/ScriptPage'));
const FiresPage = lazy(() => import('./pages/fires/FiresPage'));
const FireDetailPage = lazy(() => import('./pages/fires/FireDetailPage'));
const UsersPage = lazy(() => import('./pages/users/UsersPage'));
const TokensPage = lazy(() => import('./pages/tokens/TokensPage'));
const ChannelsPage = lazy(() => import('./pages/channels/ChannelsPage'));
const AuditPage = lazy(() => import('./pages/audit/AuditPage'));
const AccountPage = lazy(() => import('./pages/account/AccountPage'));
const PasswordChangeRequiredPage = lazy(() => import('./pages/account/PasswordChangeRequiredPage'));

function RequireAuth({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const location = useLocation();
  if (user === undefined) return <PageLoading />;
  if (user === null)
    return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  // Nothing else answers them until they choose a new password (the server refuses the rest).
  if (user.mustChangePassword) return <PasswordChangeRequiredPage />;
  return children;
}

function AdminOnly({ children }: { children: ReactNode }) {
  const { isAdmin } = useAuth();
  if (!isAdmin) return <StatusPage status={403} />;
  return children;
}

function NotFound() {
  return <StatusPage status={404} />;
}

export function App() {
  return (
    <BrowserRouter>
      <Suspense fallback={<PageLoading />}>
        <Routes>
          <Route path="/login" element={<LoginPage />} />
          <Route
            element={
              <RequireAuth>
                <Shell />
              </RequireAuth>
            }
          >
            <Route index element={<DashboardPage />} />
            <Route path="apps" element={<AppsPage />} />
            <Route path="jobs" element={<JobsPage />} />
            <Route path="jobs/new" element={<JobEditPage />} />
            <Route path="jobs/:id" element={<JobEditPage />} />
            <Route path="jobs/:id/script" element={<ScriptPage />} />
            <Route path="workflows" element={<WorkflowsPage />} />
            <Route path="workflows/new" element={<WorkflowEditPage />} />
            <Route path="workflows/:id" element={<WorkflowEditPage />} />
            <Route path="workflow-runs" element={<WorkflowRunsPage />} />
            <Route path="workflow-runs/:id" element={<WorkflowRunPage />} />
            <Route path="fires" element={<FiresPage />} />
            <Route path="fires/:id" element={<FireDetailPage />} />
            <Route
              path="users"
              element={
                <AdminOnly>
                  <UsersPage />
                </AdminOnly>
              }
            />
            <Route
              path="channels"
              element={
                <AdminOnly>
                  <ChannelsPage />
                </AdminOnly>
              }
            />
            <Route
              path="audit"
              element={
                <AdminOnly>
                  <AuditPage />
                </AdminOnly>
              }
            />
            <Route path="tokens" element={<TokensPage />} />
            <Route path="account" element={<AccountPage />} />
            <Route path="*" element={<NotFound />} />
          </Route>
        </Routes>
      </Suspense>
    </BrowserRouter>
  );
}
