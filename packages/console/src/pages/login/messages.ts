/** The sign-in page's words, in English and Simplified Chinese (same keys in both). */
export default {
  en: {
    title: 'Sign in to Tickwheel',
    subtitle: 'Distributed job scheduling',
    username: 'Username',
    password: 'Password',
    submit: 'Sign in',
    usernameRequired: 'Enter your username',
    passwordRequired: 'Enter your password',
  },
  zh: {
    title: '登录 Tickwheel',
    subtitle: '分布式任务调度平台',
    username: '用户名',
    password: '密码',
    submit: '登录',
    usernameRequired: '请输入用户名',
    passwordRequired: '请输入密码',
  },
};
