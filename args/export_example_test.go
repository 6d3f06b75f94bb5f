package args_test

import "reflect"

func reflectType[T any]() reflect.Type { return reflect.TypeFor[T]() }
