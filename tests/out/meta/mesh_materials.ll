; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.StructuredBuffer<Object>" = type opaque
declare void @"SortByMaterial"()

declare void @"DrawFlat"()

declare void @"DrawStriped"()

declare void @"DrawStar"()

declare void @"ShadeMaterial"()

@"Objects" = external constant %"class.StructuredBuffer<Object>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !5 }
!dx.entryPoints = !{ !6, !17, !22, !25, !28, !37 }
!wgc.spirv.entryPoints = !{ !29, !30, !31, !32, !38 }
!wgc.experimental.tags = !{ !33, !34 }
!llvm.ident = !{ !35 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 80 }
!3 = !{ i32 0, %"class.StructuredBuffer<Object>"* @"Objects", !"Objects", i32 0, i32 0, i32 1, i32 12, i32 0, !2 }
!4 = !{ !3 }
!5 = !{ !4, null, null, null }
!6 = !{ null, !"", null, !5, null }
!7 = !{ !"SortByMaterial", i32 0 }
!8 = !{ i32 0, i32 4, i32 2, i32 4 }
!9 = !{ i32 1, i32 65, i32 2, !8, i32 3, i32 64 }
!10 = !{ !9 }
!11 = !{ i32 0, i32 8, i32 2, i32 4 }
!12 = !{ !"DrawMaterial", i32 0 }
!13 = !{ i32 1, i32 22, i32 2, !11, i32 3, i32 64, i32 5, i32 3, i32 0, !12, i32 7, i32 64 }
!14 = !{ !13 }
!15 = !{ i32 64, i32 1, i32 1 }
!16 = !{ i32 8, i32 15, i32 13, i32 2, i32 14, i1 true, i32 15, !7, i32 16, i32 -1, i32 20, !10, i32 21, !14, i32 4, !15 }
!17 = !{ void ()* @"SortByMaterial", !"SortByMaterial", null, null, !16 }
!18 = !{ i32 1, i32 1, i32 1 }
!19 = !{ i32 1, i32 97, i32 2, !11 }
!20 = !{ !19 }
!21 = !{ i32 8, i32 15, i32 13, i32 4, i32 15, !12, i32 16, i32 -1, i32 18, !18, i32 20, !20, i32 4, !15, i32 65536, i32 2, i32 65537, i32 64, i32 65538, i32 62 }
!22 = !{ void ()* @"DrawFlat", !"DrawFlat", null, null, !21 }
!23 = !{ !"DrawMaterial", i32 1 }
!24 = !{ i32 8, i32 15, i32 13, i32 4, i32 15, !23, i32 16, i32 -1, i32 18, !18, i32 20, !20, i32 4, !15, i32 65536, i32 2, i32 65537, i32 64, i32 65538, i32 62 }
!25 = !{ void ()* @"DrawStriped", !"DrawStriped", null, null, !24 }
!26 = !{ !"DrawMaterial", i32 2 }
!27 = !{ i32 8, i32 15, i32 13, i32 4, i32 15, !26, i32 16, i32 -1, i32 18, !18, i32 20, !20, i32 4, !15, i32 65536, i32 2, i32 65537, i32 64, i32 65538, i32 62 }
!28 = !{ void ()* @"DrawStar", !"DrawStar", null, null, !27 }
!29 = !{ void ()* @"SortByMaterial", !"SortByMaterial" }
!30 = !{ void ()* @"DrawFlat", !"DrawFlat" }
!31 = !{ void ()* @"DrawStriped", !"DrawStriped" }
!32 = !{ void ()* @"DrawStar", !"DrawStar" }
!33 = !{ !"NodeMaxLoopIterations", i32 131072 }
!34 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!35 = !{ !"wgc 0.1.0" }
!36 = !{ i32 8, i32 0 }
!37 = !{ void ()* @"ShadeMaterial", !"ShadeMaterial", null, null, !36 }
!38 = !{ void ()* @"ShadeMaterial", !"ShadeMaterial" }
