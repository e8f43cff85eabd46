// Thin shim over libcurl for Swift: fixed-arity wrappers for its variadic calls
// (curl_easy_setopt, curl_easy_getinfo), one per argument type AttachKit passes. No policy lives
// here; every option and value is chosen by the Swift caller (Bridges/Curl).
#ifndef ATTACHKIT_CCURL_SHIM_H
#define ATTACHKIT_CCURL_SHIM_H

#include <curl/curl.h>

/// curl_easy_setopt(handle, option, (long)value).
static inline CURLcode ak_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt(handle, option, text): libcurl copies the text.
static inline CURLcode ak_curl_set_text(CURL *handle, CURLoption option, const char *text) {
    return curl_easy_setopt(handle, option, text);
}

/// curl_easy_setopt(handle, option, pointer): a callback's data pointer, or a list (the list must
/// outlive the transfer).
static inline CURLcode ak_curl_set_pointer(CURL *handle, CURLoption option, void *pointer) {
    return curl_easy_setopt(handle, option, pointer);
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION take this type.
typedef size_t (*ak_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode ak_curl_set_data_callback(CURL *handle, CURLoption option, ak_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// CURLOPT_PREREQFUNCTION: called once connected, before the request is sent.
static inline CURLcode ak_curl_set_prereq(CURL *handle, curl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

/// curl_easy_getinfo(handle, info, &long).
static inline long ak_curl_info_long(CURL *handle, CURLINFO info) {
    long value = -1;
    if (curl_easy_getinfo(handle, info, &value) != CURLE_OK) return -1;
    return value;
}

/// curl_easy_getinfo(handle, info, &char *): NULL when absent; owned by the handle.
static inline const char *ak_curl_info_text(CURL *handle, CURLINFO info) {
    char *value = NULL;
    if (curl_easy_getinfo(handle, info, &value) != CURLE_OK) return NULL;
    return value;
}

/// curl_easy_getinfo(handle, info, &curl_off_t): -1 when unknown.
static inline curl_off_t ak_curl_info_offset(CURL *handle, CURLINFO info) {
    curl_off_t value = -1;
    if (curl_easy_getinfo(handle, info, &value) != CURLE_OK) return -1;
    return value;
}

#endif
