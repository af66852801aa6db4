// Imported first by the chaos programs: the SDK reads this when it loads.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
export {};
