/** The default theme, with the site's own styles (custom.css). */
import DefaultTheme from 'vitepress/theme';
import './custom.css';

export default DefaultTheme;
